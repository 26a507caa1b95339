import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
	Workflow,
} from 'n8n-workflow';
import { ICredentialsHelper, isExpression, sleep } from 'n8n-workflow';
import { Credentials } from 'n8n-core';

/**
 * The host side of credentials, as n8n's own `CredentialsHelper`
 * (packages/cli/src/credentials-helper.ts) implements it, with an in-memory store in place
 * of n8n's database. The rules that decide how often our credential asks for a token are
 * copied from there, not invented:
 * - `preAuthentication` runs only when the credential's hidden `expirable` field is empty,
 *   when n8n-core reports the credentials expired (a request answered 401: see
 *   `httpRequestWithAuthentication` in n8n-core), or when the credential is being tested;
 * - its output is written back to the stored credential (`updateCredentials`), so the next
 *   `getDecrypted` of any execution sees the token;
 * - `authenticate` of type `generic` resolves `{{$credentials.x}}` expressions into the request.
 */
export class InMemoryCredentialsHelper extends ICredentialsHelper {
	private readonly store = new Map<string, ICredentialDataDecryptedObject>();

	/** How many times the credential's preAuthentication ran (= token requests it made). */
	preAuthenticationCalls = 0;

	/** How many times a node read a credential: in n8n each is a database read and a decryption. */
	decryptions = 0;

	/**
	 * How long one trip to n8n's database takes (default 0: at once). A read of the credential
	 * takes one; saving a token after preAuthentication two, as n8n 2.x reads the stored
	 * credential again before it writes: until then every execution reads no token.
	 */
	storeLatencyMs = 0;

	/** Told each access token written back to the store, as n8n would save it. */
	onAccessTokenSaved: (token: string) => void = () => undefined;

	constructor(private readonly credentialTypes: Map<string, ICredentialType>) {
		super();
	}

	/** Stores credential data under an id, as saving it in n8n's UI would. */
	save(id: string, type: string, data: ICredentialDataDecryptedObject): INodeCredentialsDetails {
		this.store.set(this.key(id, type), { ...data });
		return { id, name: `${type} ${id}` };
	}

	stored(id: string, type: string): ICredentialDataDecryptedObject | undefined {
		const data = this.store.get(this.key(id, type));
		return data && { ...data };
	}

	private key(id: string | null, type: string): string {
		return `${type}:${id ?? ''}`;
	}

	private typeOf(name: string): ICredentialType {
		const type = this.credentialTypes.get(name);
		if (!type) throw new Error(`Unknown credential type ${name}`);
		return type;
	}

	getParentTypes(): string[] {
		return [];
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.typeOf(type).properties;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		incomingRequestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow: Workflow,
		node: INode,
	): Promise<IHttpRequestOptions> {
		const requestOptions = incomingRequestOptions as IHttpRequestOptions;
		const { authenticate } = this.typeOf(typeName);
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		if (authenticate?.type === 'generic') {
			for (const [outerKey, outerValue] of Object.entries(authenticate.properties)) {
				const target = ((requestOptions as unknown as Record<string, Record<string, unknown>>)[
					outerKey
				] ??= {});
				for (const [key, value] of Object.entries(outerValue as Record<string, string>)) {
					target[this.resolve(key, credentials, workflow, node)] = this.resolve(
						value,
						credentials,
						workflow,
						node,
					);
				}
			}
		}
		return requestOptions;
	}

	private resolve(
		value: string,
		credentials: ICredentialDataDecryptedObject,
		workflow: Workflow,
		node: INode,
	): string {
		if (!isExpression(value)) return value;
		const resolved = workflow.expression.getSimpleParameterValue(
			node,
			value,
			'internal',
			{ $credentials: credentials },
			undefined,
			'',
		);
		return resolved ? String(resolved) : '';
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const credentialType = this.typeOf(typeName);
		const expirable = credentialType.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (expirable === undefined || typeof credentialType.preAuthentication !== 'function')
			return undefined;
		const isTestingCredentials =
			node?.parameters?.temp === '' && node?.type === 'n8n-nodes-base.noOp';
		if (credentials[expirable.name] !== '' && !credentialsExpired && !isTestingCredentials)
			return undefined;

		this.preAuthenticationCalls++;
		const output = await credentialType.preAuthentication.call(helpers, credentials);
		if (output[expirable.name] === undefined) return undefined;
		const nodeCredentials = node.credentials?.[credentialType.name];
		if (nodeCredentials) {
			const storedData = this.store.get(this.key(nodeCredentials.id, typeName)) ?? {};
			await this.updateCredentials(nodeCredentials, typeName, {
				...storedData,
				...output,
			} as ICredentialDataDecryptedObject);
		}
		return Object.assign(credentials, output) as ICredentialDataDecryptedObject;
	}

	async runPreAuthentication(): Promise<ICredentialDataDecryptedObject | undefined> {
		return undefined;
	}

	async getCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<Credentials> {
		return new Credentials({ id: nodeCredentials.id, name: nodeCredentials.name }, type);
	}

	/** Returns the stored data with the type's defaults, as n8n's applyDefaultsAndOverwrites does. */
	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		this.decryptions++;
		if (this.storeLatencyMs > 0) await sleep(this.storeLatencyMs);
		const data = this.store.get(this.key(nodeCredentials.id, type));
		if (!data)
			throw new Error(
				`Credential ${nodeCredentials.id ?? '(no id)'} of type ${type} does not exist`,
			);
		const withDefaults: ICredentialDataDecryptedObject = {};
		for (const property of this.typeOf(type).properties) {
			withDefaults[property.name] = (data[property.name] ??
				property.default) as ICredentialDataDecryptedObject[string];
		}
		return { ...withDefaults, ...data };
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		if (this.storeLatencyMs > 0) await sleep(2 * this.storeLatencyMs);
		this.store.set(this.key(nodeCredentials.id, type), { ...data });
		if (typeof data.accessToken === 'string' && data.accessToken !== '')
			this.onAccessTokenSaved(data.accessToken);
	}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	isCredentialUsableByNode(): boolean {
		return true;
	}
}
