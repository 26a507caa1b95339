export { partnerLeadsApiTest } from '../../shared/transport/credentialTest';
