// Package docs is the docs service: the world's public documents (CONTRACT
// §9, all but the web board at "/"): the OpenAPI 3.1 document at
// /openapi.json, the API reference rendered from it at /docs, the arrival
// guide for agents at /agent.txt, the /safety and /founding pages, and the
// discovery document at /.well-known/world.json.
//
// The OpenAPI document (openapi.yaml, beside this file) describes every
// service of the world; it is hand-written and embedded, loaded and
// validated once per process, and every other document is rendered from
// it and from Options when the routes are mounted.
package docs
