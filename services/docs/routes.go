package docs

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/gofiber/fiber/v2"

	"sharedworld.dev/pkg/httpx"
	"sharedworld.dev/pkg/problem"
)

// Options describe the world the documents speak of.
type Options struct {
	// WorldName is the world's name (default "Shared World").
	WorldName string
	// DevProvider says whether the development identity provider is served.
	DevProvider bool
	// AgentIDPrefix is the identity provider's agent_id prefix (default "emb").
	AgentIDPrefix string
}

// Defaults of Options.
const (
	DefaultWorldName     = "Shared World"
	DefaultAgentIDPrefix = "emb"
)

func (o Options) withDefaults() Options {
	if strings.TrimSpace(o.WorldName) == "" {
		o.WorldName = DefaultWorldName
	}
	if o.AgentIDPrefix == "" {
		o.AgentIDPrefix = DefaultAgentIDPrefix
	}
	return o
}

// Content types of the documents.
const (
	contentTypeHTML = "text/html; charset=utf-8"
	contentTypeText = "text/plain; charset=utf-8"
	// htmlPolicy allows the pages nothing but their own inline style: they
	// need no script, no frame and no remote resource.
	htmlPolicy   = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	cacheControl = "public, max-age=300"
)

// Routes mounts the documents on r. Everything is rendered here, once; the
// handlers only send bytes.
func Routes(r fiber.Router, opts Options) {
	s, err := newSite(opts.withDefaults())
	if err != nil {
		fail := func(*fiber.Ctx) error {
			return &problem.Error{Kind: problem.KindInternal, Message: "The world's documents could not be built.",
				Hint: "Retry later; if it persists, file a ticket with the X-Request-Id header value."}
		}
		for _, p := range []string{"/openapi.json", "/docs", "/agent.txt", "/safety", "/founding", "/.well-known/world.json"} {
			r.Get(p, fail)
		}
		return
	}
	r.Get("/openapi.json", s.openapi.handler)
	r.Get("/docs", s.reference.handler)
	r.Get("/agent.txt", s.agent.handler)
	r.Get("/safety", s.safety.handler)
	r.Get("/founding", s.founding.handler)
	r.Get("/.well-known/world.json", func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderCacheControl, cacheControl)
		return httpx.OK(c, fiber.StatusOK, s.discovery)
	})
}

// site holds every rendered document.
type site struct {
	openapi, reference, agent, safety, founding static
	discovery                                   fiber.Map
}

func newSite(o Options) (*site, error) {
	sp, err := LoadSpec()
	if err != nil {
		return nil, err
	}
	ref, err := renderReference(sp, o)
	if err != nil {
		return nil, err
	}
	agent, err := renderAgentGuide(o)
	if err != nil {
		return nil, err
	}
	safety, err := renderPage("safety.html", o)
	if err != nil {
		return nil, err
	}
	founding, err := renderPage("founding.html", o)
	if err != nil {
		return nil, err
	}
	return &site{
		openapi:   newStatic(httpx.ContentTypeJSON, sp.JSON),
		reference: newStatic(contentTypeHTML, ref),
		agent:     newStatic(contentTypeText, agent),
		safety:    newStatic(contentTypeHTML, safety),
		founding:  newStatic(contentTypeHTML, founding),
		discovery: discovery(sp, o),
	}, nil
}

// static is a rendered document with its validator.
type static struct {
	contentType string
	body        []byte
	etag        string
}

func newStatic(contentType string, body []byte) static {
	sum := sha256.Sum256(body)
	return static{contentType: contentType, body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

func (s static) handler(c *fiber.Ctx) error {
	c.Set(fiber.HeaderETag, s.etag)
	c.Set(fiber.HeaderCacheControl, cacheControl)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	if s.contentType == contentTypeHTML {
		c.Set(fiber.HeaderContentSecurityPolicy, htmlPolicy)
	}
	if etagMatches(c.Get(fiber.HeaderIfNoneMatch), s.etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, s.contentType)
	return c.Status(fiber.StatusOK).Send(s.body)
}

// etagMatches applies If-None-Match: a list of tags, weak comparison, or "*".
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || (tag != "" && strings.TrimPrefix(tag, "W/") == etag) {
			return true
		}
	}
	return false
}
