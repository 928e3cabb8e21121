module example.com/loadtest

go 1.25
