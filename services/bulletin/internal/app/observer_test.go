package app

import "time"

// unobserved is an Observer that reports nowhere, for tests of the app.
type unobserved struct{}

func (unobserved) EventApplied(string, string)     {}
func (unobserved) EventFailed(string, string)      {}
func (unobserved) Rendered(time.Duration, int)     {}
func (unobserved) SubscribersChanged(int)          {}
func (unobserved) SubscriberDropped()              {}
func (unobserved) Leading(bool)                    {}
func (unobserved) ReaderSettled(int64)             {}
func (unobserved) ItemDelay(string, time.Duration) {}
