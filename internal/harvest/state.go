package harvest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/acrawler/acrawler/internal/crawl"
	"github.com/acrawler/acrawler/internal/oai"
)

// SettingPrefix begins the key of an endpoint's state among the crawl's
// settings: "oai." and the endpoint's normalized URL.
const SettingPrefix = "oai."

// state is where an endpoint's harvesting stands, kept as one setting (a
// JSON object) so that it changes in one write.
type state struct {
	// Token resumes the list being harvested: the token of the page after
	// the last one whose URLs were queued. "" when no list is under way.
	Token string `json:"token,omitempty"`
	// Started is the responseDate of the first page of the list under way:
	// the next From once it is complete. Records changed while a list is
	// harvested (over several runs) are thus harvested again, not missed.
	Started string `json:"started,omitempty"`
	// From is the responseDate at which the last complete list began: the
	// next list asks for the records changed since ("" before any).
	From string `json:"from,omitempty"`
}

// State is an endpoint's harvesting state as recorded, for reports and
// tests.
type State struct {
	Token, Started, From string
}

// Key is the setting that holds an endpoint's state.
func Key(endpoint string) string { return SettingPrefix + endpoint }

// LoadState returns the recorded state of an endpoint (zero if none).
func LoadState(ctx context.Context, s Settings, endpoint string) (State, error) {
	st, err := loadState(ctx, s, endpoint)
	return State(st), err
}

func loadState(ctx context.Context, s Settings, endpoint string) (state, error) {
	var st state
	v, err := s.Setting(ctx, Key(endpoint))
	if errors.Is(err, crawl.ErrNotFound) {
		return st, nil
	}
	if err != nil {
		return st, fmt.Errorf("harvest: read the state of %s: %w", endpoint, err)
	}
	if err := json.Unmarshal([]byte(v), &st); err != nil {
		return state{}, fmt.Errorf("harvest: the recorded state of %s: %w", endpoint, err)
	}
	return st, nil
}

// page moves the state past a page whose URLs are queued.
func (st *state) page(p *oai.Page) {
	if st.Started == "" {
		st.Started = p.ResponseDate
	}
	st.Token = p.Token
	if p.Token == "" { // the list is complete
		st.From, st.Started = st.Started, ""
	}
}

func (st *state) save(ctx context.Context, s Settings, endpoint string) error {
	b, err := json.Marshal(st)
	if err == nil {
		err = s.SetSetting(ctx, Key(endpoint), string(b))
	}
	if err != nil {
		return fmt.Errorf("harvest: record the state of %s: %w", endpoint, err)
	}
	return nil
}
