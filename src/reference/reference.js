// The API reference at GET /docs: Redoc renders this server's own OpenAPI document, every action with its
// schemas, examples and its curl and TypeScript samples (the document's x-codeSamples). Redoc is served from
// this server's node_modules; nothing is fetched from another host.
/* global Redoc */
fetch('/openapi.json')
  .then((response) => response.json())
  .then((spec) => {
    document.title = `${spec.info.title} API reference`;
    Redoc.init(spec, { hideDownloadButton: false, expandResponses: '200', jsonSampleExpandLevel: 3, requiredPropsFirst: true, sortTagsAlphabetically: false }, document.getElementById('reference'));
  })
  .catch((error) => {
    document.getElementById('reference').textContent = `The OpenAPI document could not be loaded: ${error.message}`;
  });
