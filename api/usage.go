package api

// registerUsage registers the usage operations. It is filled in by the usage resource.
func (s *Server) registerUsage() {}
