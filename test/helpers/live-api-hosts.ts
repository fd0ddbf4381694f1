/**
 * The base URLs of the local hosts started in this test file: every answer fetched from one is
 * checked against the OpenAPI document (test/setup/validate-api-responses.ts). A module of its own
 * so that the setup, which every test file loads, imports nothing heavy.
 */
export const liveApiBaseUrls = new Set<string>();

/** How many answers of those hosts the setup has checked against the document in this test file so far. */
export const checkedAnswers = { count: 0 };
