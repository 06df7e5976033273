package spark

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// timeLayout is Spark's REST date format: milliseconds and a literal GMT
// suffix, no zone offset ("2015-05-06T13:03:06.494GMT", every recorded
// file). Spark formats with SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'GMT'")
// in the GMT zone.
const timeLayout = "2006-01-02T15:04:05.000GMT"

// Time is a Spark REST date. The empty string (the History Server's
// lastUpdated in recorded answers) and null are the zero time.
type Time struct{ time.Time }

// UnmarshalJSON parses Spark's date strings.
func (t *Time) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("spark date: want a string, got %s", b)
	}
	if s == "" {
		t.Time = time.Time{}
		return nil
	}
	v, err := time.Parse(timeLayout, s)
	if err != nil {
		return fmt.Errorf("spark date %q: want yyyy-mm-ddThh:mm:ss.SSSGMT", s)
	}
	t.Time = v.UTC()
	return nil
}

// MarshalJSON writes Spark's format (the mini cluster serves it).
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte(`""`), nil
	}
	return json.Marshal(t.UTC().Format(timeLayout))
}

// Millis is a duration Spark reports in milliseconds (executorRunTime,
// duration, jvmGcTime, totalDuration, ...).
func Millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }
