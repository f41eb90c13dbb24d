/** Tests run against a real database: PostgreSQL when TEST_DATABASE_URL is set, else embedded PGlite. */
const { files: databaseIndependent } = require('./tests/database-independent.json');

const escapeRegExp = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/tests/**/*.test.ts'],
  // Files that never reach the given database run once, in the embedded run (tests/database-independent.json).
  testPathIgnorePatterns: ['/node_modules/', ...(process.env.TEST_DATABASE_URL ? databaseIndependent.map((f) => `^<rootDir>/${escapeRegExp(f)}$`) : [])],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 60000,
  maxWorkers: 2,
};
