/** Lead schema field types and the names the service may send (ignoring case, spaces, `_`). */
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

/** An unknown type is a picklist if it has options, else text (the service accepts text for all). */
export function fieldTypeOf(serviceType: unknown, hasOptions: boolean): LeadFieldType {
	const key =
		typeof serviceType === 'string' ? serviceType.trim().toLowerCase().replace(/[\s_]/g, '') : '';
	return TYPE_BY_ALIAS.get(key) ?? (hasOptions ? 'picklist' : 'string');
}
