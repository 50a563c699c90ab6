package sandbox

// OpenAPIPath answers GET with the OpenAPI 3 description of the emulated
// API, under the base URL and at the root.
const OpenAPIPath = "/__sandbox/openapi.json"
