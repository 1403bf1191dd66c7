module questlog.example/gotlog

go 1.19

require golang.org/x/mod v0.7.0

replace golang.org/x/mod => /usr/share/gocode/src/golang.org/x/mod
