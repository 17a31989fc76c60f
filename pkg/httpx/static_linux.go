package httpx

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// memFile keeps b in an anonymous in-memory file (memfd), sealed against
// writes, or returns nil when the system will not make one.
func memFile(b []byte) *os.File {
	fd, err := unix.MemfdCreate("sharedworld-static", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "sharedworld-static")
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return nil
	}
	_, _ = unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE|unix.F_SEAL_SEAL)
	return f
}

// fileSender writes a response header (with MSG_MORE, so that it leaves
// in the segment its body starts) and then a body's file (with sendfile,
// at the sender's own offset: the file's position is shared by every
// response and never used), all in one wait for the socket as a write
// does (its deadline applies). Kept by a connection, an answer allocates
// nothing.
type fileSender struct {
	head []byte
	body *StaticBody // nil: the header alone
	off  int
	sent int64
	err  error
	step func(fd uintptr) bool // s.write, bound once
}

// send writes head, then body from off on; the caller holds a reference
// to the body's file (acquire).
func (s *fileSender) send(raw syscall.RawConn, head []byte, body *StaticBody, off int) (int64, error) {
	if s.step == nil {
		s.step = s.write
	}
	s.head, s.body, s.off, s.sent, s.err = head, body, off, 0, nil
	if err := raw.Write(s.step); s.err == nil {
		s.err = err
	}
	sent, err := s.sent, s.err
	s.head, s.body = nil, nil
	return sent, err
}

func (s *fileSender) write(fd uintptr) bool {
	for len(s.head) > 0 {
		n, err := syscall.SendmsgN(int(fd), s.head, nil, nil, syscall.MSG_MORE)
		if n > 0 {
			s.head = s.head[n:]
			s.sent += int64(n)
		}
		if done, wait := s.failed(err, n); done || wait {
			return done
		}
	}
	for s.body != nil && s.off < len(s.body.data) {
		at := int64(s.off)
		n, err := syscall.Sendfile(int(fd), s.body.fd, &at, len(s.body.data)-s.off)
		if n > 0 {
			s.off += n
			s.sent += int64(n)
		}
		if done, wait := s.failed(err, n); done || wait {
			return done
		}
	}
	return true
}

// failed reads a write's outcome: done (an error, kept), wait (the socket
// is full: wait until it takes more), or neither (go on).
func (s *fileSender) failed(err error, n int) (done, wait bool) {
	switch {
	case errors.Is(err, syscall.EAGAIN):
		return false, true
	case errors.Is(err, syscall.EINTR):
		return false, false
	case err != nil:
		s.err = err
		return true, false
	case n == 0:
		s.err = errors.New("the socket took nothing")
		return true, false
	}
	return false, false
}

// tempFile keeps b in an unlinked file of the temporary directory
// (O_TMPFILE: never named, gone when closed), or returns nil when the
// directory will not take one (no O_TMPFILE, read-only, full). Its pages
// are the page cache's, as a static file's are for nginx: sendfile reads
// them for about half the kernel time it takes to read an in-memory
// file's (shmem) pages, which was the last difference to nginx at 30 to
// 36 KB bodies (hack/bench/bulletin-vs-nginx.sh: 0.82-0.90 of nginx's rate
// from a memfd, 0.98 from the page cache). A file closed before the
// kernel's writeback (about 30 s) never reaches the disk; one kept longer
// is written once.
func tempFile(b []byte) *os.File {
	fd, err := unix.Open(os.TempDir(), unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "sharedworld-static")
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return nil
	}
	return f
}

// sendFile writes body from *off on to the socket (see fileSender).
func sendFile(sock syscall.Conn, body *StaticBody, off *int) (int64, error) {
	raw, err := sock.SyscallConn()
	if err != nil {
		return 0, err
	}
	var s fileSender
	n, err := s.send(raw, nil, body, *off)
	*off = s.off
	return n, err
}

// writeMore writes p with MSG_MORE: the kernel keeps it for the segment
// the next write (the body) fills, so a small response goes out in one.
func writeMore(sock syscall.Conn, p []byte) (int, error) {
	raw, err := sock.SyscallConn()
	if err != nil {
		return 0, err
	}
	var s fileSender
	n, err := s.send(raw, p, nil, 0)
	return int(n), err
}
