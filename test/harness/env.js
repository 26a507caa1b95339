// n8n-core writes its settings to ~/.n8n unless N8N_USER_FOLDER points elsewhere.
// Each test worker gets its own temporary folder (created in global-setup).
process.env.N8N_USER_FOLDER = process.env.PARTNER_LEADS_TEST_USER_FOLDER;
process.env.N8N_ENCRYPTION_KEY =
	process.env.N8N_ENCRYPTION_KEY || 'partner-leads-test-encryption-key';
process.env.N8N_LOG_LEVEL = process.env.N8N_LOG_LEVEL || 'silent';
