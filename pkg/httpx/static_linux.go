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

// sendFile writes body from *off on to the socket with sendfile from the
// body's file at that offset (the file's position is shared by every
// response and never used), waiting for the socket as a write does (its
// deadline applies). The caller holds a reference to the file (acquire).
func sendFile(sock syscall.Conn, body *StaticBody, off *int) (int64, error) {
	raw, err := sock.SyscallConn()
	if err != nil {
		return 0, err
	}
	file, err := body.file.SyscallConn()
	if err != nil {
		return 0, err
	}
	var sent int64
	var serr error
	ferr := file.Control(func(in uintptr) {
		err := raw.Write(func(out uintptr) bool {
			for *off < len(body.data) {
				at := int64(*off)
				n, err := syscall.Sendfile(int(out), int(in), &at, len(body.data)-*off)
				if n > 0 {
					*off += n
					sent += int64(n)
				}
				switch {
				case errors.Is(err, syscall.EAGAIN):
					return false // wait until the socket takes more
				case errors.Is(err, syscall.EINTR):
				case err != nil:
					serr = err
					return true
				case n == 0:
					serr = errors.New("sendfile sent nothing")
					return true
				}
			}
			return true
		})
		if serr == nil {
			serr = err
		}
	})
	if serr == nil {
		serr = ferr
	}
	return sent, serr
}

// writeMore writes p with MSG_MORE: the kernel keeps it for the segment
// the next write (the body) fills, so a small response goes out in one.
func writeMore(sock syscall.Conn, p []byte) (int, error) {
	raw, err := sock.SyscallConn()
	if err != nil {
		return 0, err
	}
	written := 0
	var werr error
	err = raw.Write(func(fd uintptr) bool {
		for written < len(p) {
			n, err := syscall.SendmsgN(int(fd), p[written:], nil, nil, syscall.MSG_MORE)
			if n > 0 {
				written += n
			}
			switch {
			case errors.Is(err, syscall.EAGAIN):
				return false
			case errors.Is(err, syscall.EINTR):
			case err != nil:
				werr = err
				return true
			}
		}
		return true
	})
	if werr == nil {
		werr = err
	}
	return written, werr
}
