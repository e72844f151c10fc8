package api

// registerDecide registers the decide operations. It is filled in by the decide resource.
func (s *Server) registerDecide() {}
