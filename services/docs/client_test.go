package docs_test

import (
	"reflect"
	"strings"
	"testing"

	"sharedworld.dev/pkg/client"
	"sharedworld.dev/pkg/testkit"
)

// Every operation of the served document has a method of the Go client,
// and the client's table names no operation the document lost: a route
// added without a client method fails here.
func TestEveryOperationHasAClientMethod(t *testing.T) {
	clientType := reflect.TypeOf(&client.Client{})
	documented := map[string]bool{}
	for route, op := range operations(servedDocument(t)) {
		if op.OperationID == "" {
			t.Errorf("%s has no operationId", route)
			continue
		}
		documented[op.OperationID] = true
		method, ok := client.Operations[op.OperationID]
		if !ok {
			t.Errorf("%s (%s) has no entry in client.Operations", route, op.OperationID)
			continue
		}
		if _, ok := clientType.MethodByName(method); !ok {
			t.Errorf("%s (%s): client.Operations names %s, which *client.Client does not have", route, op.OperationID, method)
		}
	}
	for id := range client.Operations {
		if !documented[id] {
			t.Errorf("client.Operations has %q, which the document does not describe", id)
		}
	}
	for id, method := range client.Streams {
		if !documented[id] {
			t.Errorf("client.Streams has %q, which the document does not describe", id)
		}
		if _, ok := clientType.MethodByName(method); !ok {
			t.Errorf("client.Streams names %s, which *client.Client does not have", method)
		}
	}
}

// /agent.txt keeps the curl form for agents without the command, and names
// worldctl for those who have it.
func TestAgentGuideNamesWorldctlAndKeepsCurl(t *testing.T) {
	resp := testkit.Do(t, newApp(t, devWorld), testkit.Request{Method: "GET", Path: "/agent.txt"})
	resp.ExpectStatus(t, 200)
	guide := string(resp.Raw)
	for _, want := range []string{"worldctl login --dev Ada", "worldctl --help", "worldctl mcp", "mcpServers", "curl -s -X POST \"$WORLD/dev/idp/register\"", "/api/world/register"} {
		if !strings.Contains(guide, want) {
			t.Errorf("/agent.txt does not say %q", want)
		}
	}
}
