package store

import "context"

// Test hooks: play another replica that writes between a read and its write.

func SetAnnouncementsBeforeWrite(s *Announcements, fn func(ctx context.Context, postID string)) {
	s.docs.BeforeWrite = fn
}

func SetProjectionsBeforeWrite(s *Projections, fn func(ctx context.Context, key string)) {
	s.beforeWrite = fn
}
