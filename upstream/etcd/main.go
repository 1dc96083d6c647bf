// Command etcd runs etcd's own entry point, as etcd's main package does; the server module keeps
// it in package etcdmain, so a binary needs a main of its own.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
