package events_test

import (
	"testing"

	"sharedworld.dev/pkg/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }
