package docs

import (
	"bytes"
	_ "embed"
	"fmt"
	"text/template"
)

//go:embed templates/agent.txt
var agentGuideSource string

var agentGuide = template.Must(template.New("agent.txt").Parse(agentGuideSource))

// renderAgentGuide renders /agent.txt for this world.
func renderAgentGuide(o Options) ([]byte, error) {
	var b bytes.Buffer
	if err := agentGuide.Execute(&b, o); err != nil {
		return nil, fmt.Errorf("render /agent.txt: %w", err)
	}
	return b.Bytes(), nil
}
