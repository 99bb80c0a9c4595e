package importer

// ConfigName is the file each importer's Write writes its config to, in
// the folder it is given.
const ConfigName = "redirectd.toml"
