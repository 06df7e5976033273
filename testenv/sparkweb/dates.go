package sparkweb

import (
	"net/url"
	"time"
)

// The History Server's application-list date filters (Spark's
// ApplicationListResource: minDate/maxDate on an attempt's start,
// minEndDate/maxEndDate on a completed attempt's end, bounds inclusive;
// the defaults 2010-01-01 and 3000-01-01 let everything through).
//
// A value is parsed as Spark's SimpleDateParam does: first
// "yyyy-MM-dd'T'HH:mm:ss.SSSz", then a GMT day "yyyy-MM-dd"; anything
// else is a 400 "Couldn't parse date: <value>". Stricter than Spark: the
// zone of the first form must be GMT or UTC (the form the recorded
// answers and the docs' examples use); Java's other zone names (PST,
// +0100, ...) are refused rather than read at a guessed offset.
type dateRange struct {
	minStart, maxStart, minEnd, maxEnd time.Time
}

var (
	sparkDateLayouts = []string{"2006-01-02T15:04:05.000GMT", "2006-01-02T15:04:05.000UTC"}
	sparkDayLayout   = "2006-01-02"
)

// parseSparkDate is SimpleDateParam's parse; ok is false on a value
// Spark would refuse (or one with a zone this stand-in does not read).
func parseSparkDate(v string) (time.Time, bool) {
	for _, l := range sparkDateLayouts {
		if t, err := time.Parse(l, v); err == nil {
			return t, true
		}
	}
	if t, err := time.Parse(sparkDayLayout, v); err == nil {
		return t, true
	}
	return time.Time{}, false
}

// parseDateRange reads the four filters; bad names the parameter value
// that did not parse.
func parseDateRange(q url.Values) (r dateRange, bad string) {
	r = dateRange{minStart: time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC), maxStart: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}
	r.minEnd, r.maxEnd = r.minStart, r.maxStart
	for _, p := range []struct {
		name string
		to   *time.Time
	}{{"minDate", &r.minStart}, {"maxDate", &r.maxStart}, {"minEndDate", &r.minEnd}, {"maxEndDate", &r.maxEnd}} {
		v := q.Get(p.name)
		if v == "" {
			continue
		}
		t, ok := parseSparkDate(v)
		if !ok {
			return r, v
		}
		*p.to = t
	}
	return r, ""
}

// holds is isAttemptInRange for a completed attempt (the stand-in lists
// completed apps only).
func (r dateRange) holds(a App) bool {
	return !a.Start.Before(r.minStart) && !a.Start.After(r.maxStart) && !a.End.Before(r.minEnd) && !a.End.After(r.maxEnd)
}
