export { partnerLeadsApiTest } from '../../shared/credential/credentialTest';
