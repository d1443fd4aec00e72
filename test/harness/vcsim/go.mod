module cloud-controller-manager.local/harness/vcsim

go 1.26.0

require github.com/vmware/govmomi v0.55.1

require github.com/google/uuid v1.6.0 // indirect
