"func.func"() ({}) {function_type = () -> (), sym_name = 3 : i64} : () -> ()
