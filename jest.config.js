/** Tests run against a real database: PostgreSQL when TEST_DATABASE_URL is set, else embedded PGlite. */
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 60000,
  maxWorkers: 2,
};
