/**
 * The field types of the lead schema and the names the service may send for each, compared
 * without case, spaces or underscores. What a type means for a value (how it is read and
 * checked, how it shows in n8n) is up to the node that handles values: one rule per type here.
 */
const FIELD_TYPE_NAMES = {
	string: ['string', 'text'],
	textarea: ['textarea', 'longtext'],
	email: ['email'],
	phone: ['phone', 'tel'],
	url: ['url'],
	number: ['number', 'integer', 'int', 'decimal', 'double', 'float', 'percent'],
	currency: ['currency'],
	boolean: ['boolean', 'bool', 'checkbox'],
	date: ['date'],
	datetime: ['datetime', 'date-time', 'timestamp'],
	picklist: ['picklist', 'select', 'dropdown', 'enum'],
	multipicklist: ['multipicklist', 'multiselect'],
} as const satisfies Record<string, readonly string[]>;

export type LeadFieldType = keyof typeof FIELD_TYPE_NAMES;

const TYPE_BY_ALIAS = new Map<string, LeadFieldType>(
	(Object.keys(FIELD_TYPE_NAMES) as LeadFieldType[]).flatMap((type) =>
		FIELD_TYPE_NAMES[type].map((alias): [string, LeadFieldType] => [alias, type]),
	),
);

/**
 * The type of a schema entry. A type this table does not know is a stated choice, not an
 * accident: with a list of options it is a picklist (the options are what matters to the
 * user), otherwise text, which the service accepts for any field and the user can still map.
 */
export function fieldTypeOf(serviceType: unknown, hasOptions: boolean): LeadFieldType {
	const key =
		typeof serviceType === 'string' ? serviceType.trim().toLowerCase().replace(/[\s_]/g, '') : '';
	return TYPE_BY_ALIAS.get(key) ?? (hasOptions ? 'picklist' : 'string');
}
