// Matrix projects (jest.config.ts) name a simulator personality in their globals; the
// simulator reads it from the environment when a test does not choose one itself.
process.env.PARTNER_SIM_PERSONALITY = globalThis.PARTNER_SIM_PERSONALITY;
