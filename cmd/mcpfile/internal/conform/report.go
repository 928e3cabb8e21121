package conform

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the report for people: what was checked, then one line
// per check, then the verdict.
func (r *Report) WriteTable(w io.Writer) error {
	for _, n := range r.Notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tLEVEL\tCHECK\tDETAIL")
	counts := map[string]int{}
	for _, c := range r.Checks {
		status := c.Status
		if c.Status == "fail" && c.Level == "SHOULD" {
			status = "warn"
		}
		counts[status]++
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", status, c.Level, c.ID, oneLine(c.Detail))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d pass, %d fail, %d warn (SHOULD), %d skip\n", counts["pass"], counts["fail"], counts["warn"], counts["skip"])
	return err
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > 90 {
		s = string(r[:90]) + "…"
	}
	return s
}

// WriteJSON writes {"checks":[…]}.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one test case per check, a
// failed MUST a failure, a failed SHOULD a pass whose output says so, a
// skip skipped.
func (r *Report) WriteJUnit(w io.Writer) error {
	s := junitSuite{Name: "mcpfile conform"}
	for _, c := range r.Checks {
		k := junitCase{Name: c.ID, Classname: "conform." + c.Level}
		msg := &junitMessage{Message: c.Requirement, Text: c.Detail}
		switch {
		case c.Status == "fail" && c.Level == "MUST":
			k.Failure = msg
			s.Failures++
		case c.Status == "skip":
			k.Skipped = msg
			s.Skipped++
		case c.Status == "fail":
			k.SystemOut = "warning: SHOULD not met: " + c.Detail
		default:
			k.SystemOut = c.Detail
		}
		s.Cases = append(s.Cases, k)
	}
	s.Tests = len(s.Cases)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	e := xml.NewEncoder(w)
	e.Indent("", "  ")
	if err := e.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
