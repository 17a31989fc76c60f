package main

import (
	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/apidocs"
	"sharedworld.dev/services/bulletin"
)

// withDocs serves the public documents (CONTRACT §9) beside the bulletin:
// the Ingress sends /docs, /openapi.json, /agent.txt, /safety, /founding
// and /.well-known/world.json to the bulletin service.
type withDocs struct {
	*bulletin.Service
	docs apidocs.Options
}

func (w withDocs) Routes(r fiber.Router) {
	w.Service.Routes(r)
	apidocs.Routes(r, w.docs)
}
