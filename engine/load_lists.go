package engine

// The IR's members for lists of members (version 3), read as load.go
// reads the rest: strictly, every member required.

// readListInfo reads a list field's list member (IR version 3).
func readListInfo(path string, v any) (*ListInfo, error) {
	o, err := readObject(path, v, []string{"title", "max", "noun"})
	if err != nil {
		return nil, err
	}
	var e errs
	l := &ListInfo{Title: e.str(o.str("title")), Noun: e.str(o.str("noun"))}
	if e.err != nil {
		return nil, e.err
	}
	l.Max, err = o.integer("max")
	return l, err
}

// readMemberOf reads a member field's member member (IR version 3).
func readMemberOf(path string, v any) (*MemberOf, error) {
	o, err := readObject(path, v, []string{"list", "index", "name"})
	if err != nil {
		return nil, err
	}
	var e errs
	m := &MemberOf{List: e.str(o.str("list")), Name: e.str(o.str("name"))}
	if e.err != nil {
		return nil, e.err
	}
	m.Index, err = o.integer("index")
	return m, err
}
