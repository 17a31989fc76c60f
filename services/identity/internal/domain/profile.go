// Package domain holds the identity rules of CONTRACT §2–3: profile limits,
// HTML stripping, presence and the citizen lifecycle.
package domain

import (
	"strings"
	"unicode/utf8"

	"sharedworld.dev/pkg/problem"
	"sharedworld.dev/pkg/text"
)

// Limits of CONTRACT §3 (counted in Unicode code points).
const (
	MaxName         = 100
	MaxBio          = 2000
	MaxDirectoryBio = 500
	MaxInterests    = 10
	MaxInterest     = 32
)

// Profile is a citizen's self-description.
type Profile struct {
	Name             string
	Bio              string
	Interests        []string
	DirectoryVisible bool
	DirectoryBio     string
}

// ProfileChange is a partial update: nil fields stay as they are.
type ProfileChange struct {
	Name             *string
	Bio              *string
	Interests        *[]string
	DirectoryVisible *bool
	DirectoryBio     *string
}

func tooLong(field string, max int) error {
	return problem.Validation(field+" is too long.", "Send at most "+itoa(max)+" characters in "+field+".")
}

func itoa(n int) string {
	var buf [12]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(buf[i:])
		}
	}
}

// CleanName strips HTML and surrounding space and checks the length.
func CleanName(raw string) (string, error) {
	name := strings.TrimSpace(text.StripHTML(raw))
	if utf8.RuneCountInString(name) > MaxName {
		return "", tooLong("name", MaxName)
	}
	return name, nil
}

// CleanInterests trims each interest and checks count and lengths.
func CleanInterests(raw []string) ([]string, error) {
	if len(raw) > MaxInterests {
		return nil, problem.Validation("Too many interests.", "Send at most 10 interests.")
	}
	out := make([]string, 0, len(raw))
	for _, in := range raw {
		in = strings.TrimSpace(text.StripHTML(in))
		if in == "" {
			return nil, problem.Invalid("An interest is empty.", "Send each interest as a non-empty string of at most 32 characters.")
		}
		if utf8.RuneCountInString(in) > MaxInterest {
			return nil, tooLong("each interest", MaxInterest)
		}
		out = append(out, in)
	}
	return out, nil
}

func cleanText(field, raw string, max int) (string, error) {
	s := strings.TrimSpace(text.StripHTML(raw))
	if utf8.RuneCountInString(s) > max {
		return "", tooLong(field, max)
	}
	return s, nil
}

// Apply validates a change and returns the profile after it.
func (p Profile) Apply(ch ProfileChange) (Profile, error) {
	var err error
	if ch.Name != nil {
		if p.Name, err = CleanName(*ch.Name); err != nil {
			return p, err
		}
	}
	if ch.Bio != nil {
		if p.Bio, err = cleanText("bio", *ch.Bio, MaxBio); err != nil {
			return p, err
		}
	}
	if ch.DirectoryBio != nil {
		if p.DirectoryBio, err = cleanText("directory_bio", *ch.DirectoryBio, MaxDirectoryBio); err != nil {
			return p, err
		}
	}
	if ch.Interests != nil {
		if p.Interests, err = CleanInterests(*ch.Interests); err != nil {
			return p, err
		}
	}
	if ch.DirectoryVisible != nil {
		p.DirectoryVisible = *ch.DirectoryVisible
	}
	if p.Interests == nil {
		p.Interests = []string{}
	}
	return p, nil
}

// Listed reports whether the directory shows this profile: only visible,
// named citizens appear (CONTRACT §3).
func (p Profile) Listed() bool { return p.DirectoryVisible && p.Name != "" }
