package proc

import (
	"net"
	"strconv"
	"sync"
)

// FreeAddr is a loopback address nobody listens on, for a child to listen
// on. A port is handed out once per process: children starting side by
// side would otherwise be given the same port, closed again before either
// listens on it.
func FreeAddr() (string, error) {
	for {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		addr := ln.Addr().String()
		ln.Close()
		handedMu.Lock()
		seen := handed[addr]
		handed[addr] = true
		handedMu.Unlock()
		if !seen {
			return addr, nil
		}
	}
}

// FreePort is FreeAddr's port.
func FreePort() (int, error) {
	addr, err := FreeAddr()
	if err != nil {
		return 0, err
	}
	_, port, _ := net.SplitHostPort(addr)
	return strconv.Atoi(port)
}

var (
	handedMu sync.Mutex
	handed   = map[string]bool{}
)
