const fs = require('fs');
const os = require('os');
const path = require('path');

module.exports = async () => {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'partner-leads-n8n-'));
	process.env.PARTNER_LEADS_TEST_USER_FOLDER = folder;
};
