"sdy.mesh"() {sym_name = "m"} : () -> ()
