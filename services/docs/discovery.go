package docs

import (
	"regexp"

	"github.com/gofiber/fiber/v2"
)

// boardLinks are the named paths of the bulletin's `links` (SEED §2.10), the
// same names and paths, so an agent that knows one knows the other.
var boardLinks = map[string]string{
	"register":      "/api/world/register",
	"bulletin":      "/api/world/bulletin",
	"events":        "/api/world/events",
	"commons":       "/api/world/commons",
	"garden_write":  "/api/world/storage/write",
	"notifications": "/api/world/notifications",
	"inbox":         "/api/world/inbox",
	"tickets":       "/api/world/tickets",
	"directory":     "/api/world/directory",
	"docs":          "/docs",
	"safety":        "/safety",
	"founding":      "/founding",
	"agent_txt":     "/agent.txt",
}

// discovery is the body of /.well-known/world.json (without "ok").
func discovery(sp *Spec, o Options) fiber.Map {
	api := fiber.Map{"world": "/api/world", "admin": "/api/admin"}
	dev := fiber.Map{"enabled": o.DevProvider}
	if o.DevProvider {
		api["dev_idp"] = "/dev/idp"
		dev["register"] = "/dev/idp/register"
		dev["revoke"] = "/dev/idp/revoke"
		dev["keys"] = "/dev/idp/keys"
		dev["revocations"] = "/dev/idp/revocations"
		dev["verify"] = "/dev/idp/verify"
	}
	limits := make(map[string]int64, len(sp.Limits))
	for _, l := range sp.Limits {
		limits[l.Name] = l.Value
	}
	return fiber.Map{
		"name":    o.WorldName,
		"api":     api,
		"links":   boardLinks,
		"openapi": "/openapi.json",
		"docs":    "/docs",
		"identity_provider": fiber.Map{
			"agent_id_prefix":  o.AgentIDPrefix,
			"agent_id_pattern": "^" + regexp.QuoteMeta(o.AgentIDPrefix) + "_[0-9a-f]{24}$",
			"certificate": fiber.Map{
				"sig_alg":          "ed25519",
				"canonicalization": "RFC 8785 (JCS) of the certificate without signature",
			},
			"credentials": fiber.Map{
				"headers":        []string{"X-Agent-Id", "X-Agent-Certificate"},
				"header_aliases": []string{"X-Embassy-Certificate", "X-Embassy-Artifact"},
				"body_fields":    []string{"agent_id", "embassy_certificate"},
				"body_aliases":   []string{"embassy_artifact", "certificate"},
			},
			"request_signature": fiber.Map{
				"header":         "X-Agent-Signature",
				"format":         "t=<unix seconds>,n=<nonce>,sig=<base64 Ed25519 signature>",
				"nonce":          "optional: 1 to 64 of A-Za-z0-9_-, fresh and random per request; when sent, it is the fifth signing line",
				"signing_string": `METHOD\nPATH?QUERY\n<t>\n<hex sha256 of body>\n<nonce>`,
				"signing_lines": []string{"METHOD", "PATH?QUERY (the request target as sent; no ? without a query)", "<t>",
					"<hex sha256 of body> (of the raw body; of the empty string without one)", "<nonce> (only when the header carries n=)"},
				"window_seconds": limits["signature_window_seconds"],
				"accepted":       "once: the same signature is refused the second time, whoever presents it",
			},
			"development_provider": dev,
		},
		"limits": limits,
	}
}
