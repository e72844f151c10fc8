// The shapes the console reads from the open surface of Eligo's API
// (/api/v1/public). Only the members the console uses are declared; the
// API may add others, which the console ignores.
export {};
