package broken

var x int = "s"

func f() { undefined() }
