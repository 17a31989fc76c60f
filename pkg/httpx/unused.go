package httpx

import "sync"

// unusedConns are the connections of an app served without a front door
// that have not sent a byte yet. fasthttp counts a connection as active
// from the moment it takes it, so its shutdown waits for one a client
// opened ahead and never used (a pool's spare) until the read timeout, and
// a request sent on it meanwhile meets a server that is closing. The front
// door closes those itself (frontDoor.Close); Shutdown closes these.
type unusedConns struct {
	mu      sync.Mutex
	conns   map[*lingerConn]struct{}
	closing bool
}

func newUnusedConns() *unusedConns {
	return &unusedConns{conns: map[*lingerConn]struct{}{}}
}

// add tracks a connection just accepted; false once closing, when the
// caller closes it instead.
func (u *unusedConns) add(c *lingerConn) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.closing {
		return false
	}
	u.conns[c] = struct{}{}
	return true
}

// used forgets a connection that sent its first bytes or closed.
func (u *unusedConns) used(c *lingerConn) {
	u.mu.Lock()
	delete(u.conns, c)
	u.mu.Unlock()
}

// closeAll ends the connections that have not sent a byte (a request
// whose first bytes are on their way at this moment is cut, as at the
// front door), and from now on every new one at once. Their reads time
// out rather than fail, so the full server closes them without an answer
// or an error logged, as it does an idle connection at its timeout
// (serverErrors).
func (u *unusedConns) closeAll() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.closing = true
	for c := range u.conns {
		c.stopReading()
	}
	clear(u.conns)
}
