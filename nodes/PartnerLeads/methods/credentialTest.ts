export { partnerLeadsApiTest } from '../transport/credentialTest';
