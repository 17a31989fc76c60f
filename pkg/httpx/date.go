package httpx

import (
	"sync"
	"sync/atomic"
	"time"
	_ "unsafe" // go:linkname, below

	"github.com/valyala/fasthttp"
)

// fasthttp stamps every answer's Date header from a value a goroutine of
// its own refreshes once a second from the moment of the first answer, so
// the Date it sends lags the clock by up to a second, more when that sleep
// runs late; and it drops a Date a handler sets. keepDateCurrent stores
// the value again at the start of every second, so the Date an agent
// reads is the second the answer was written in.
//
//go:linkname fasthttpServerDate github.com/valyala/fasthttp.serverDate
var fasthttpServerDate atomic.Value

var dateKeeper sync.Once

func keepDateCurrent() {
	dateKeeper.Do(func() {
		refresh := func() { fasthttpServerDate.Store(fasthttp.AppendHTTPDate(nil, time.Now())) }
		refresh()
		go func() {
			for {
				now := time.Now()
				time.Sleep(now.Truncate(time.Second).Add(time.Second).Sub(now))
				refresh()
				// fasthttp's own refresh may have formatted the second
				// before and stored it just after ours: store once more.
				time.Sleep(5 * time.Millisecond)
				refresh()
			}
		}()
	})
}
