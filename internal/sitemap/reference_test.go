package sitemap

import (
	"bytes"
	"encoding/xml"
)

// parseReference is Parse's XML path rebuilt on encoding/xml in strict mode:
// the same builder, fed by the standard tokenizer. FuzzParse checks that Parse
// and parseReference agree on every document both accept.
func parseReference(data []byte, lim Limits) (Kind, []Entry, error) {
	var got []Entry
	b := &builder{maxURLs: lim.MaxURLs, fn: func(e Entry) error {
		got = append(got, e)
		return nil
	}}
	d := xml.NewDecoder(bytes.NewReader(data))
	for !b.done {
		tok, err := d.Token()
		if err != nil {
			return b.kind, got, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			id := nameOther
			if len(t.Name.Local) <= maxLocal {
				id = lookupName([]byte(t.Name.Local))
			}
			err = b.start(id)
		case xml.EndElement:
			err = b.end()
		case xml.CharData:
			if b.wantText() {
				b.text(t)
			}
		}
		if err != nil {
			return b.kind, got, err
		}
	}
	return b.kind, got, nil
}
