package api

// registerRulesets registers the rulesets operations. It is filled in by the rulesets resource.
func (s *Server) registerRulesets() {}
