//go:build moot_example

package main

import "github.com/moot-dev/moot/statemachine/duet"

// A moot built with -tags moot_example knows duet, the example protocol,
// as its tests build it: this line is all a protocol asks of cmd/moot. A
// release build has no such file and no toy protocol.
func init() { protocols = append(protocols, duet.Protocol{}) }
