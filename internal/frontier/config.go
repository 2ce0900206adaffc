package frontier

// WithDefaults returns c with every unset field at its default, as New
// applies them: the frontier's defaults in one place, for a caller that
// reads them (the engine renews leases at a third of Lease and caps a
// Retry-After at MaxBackoff).
func (c Config) WithDefaults() Config {
	c.defaults()
	return c
}
