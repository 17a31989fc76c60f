//go:build !linux

package httpx

import (
	"errors"
	"os"
	"syscall"
)

// Without memfd and sendfile a StaticBody is served from memory.
func memFile([]byte) *os.File { return nil }

func tempFile([]byte) *os.File { return nil }

func sendFile(syscall.Conn, *StaticBody, *int) (int64, error) {
	return 0, errors.New("sendfile is not used on this system")
}

func writeMore(sock syscall.Conn, p []byte) (int, error) {
	return 0, errors.New("MSG_MORE is not used on this system")
}

type fileSender struct{}

func (*fileSender) send(syscall.RawConn, []byte, *StaticBody, int) (int64, error) {
	return 0, errors.New("sendfile is not used on this system")
}
