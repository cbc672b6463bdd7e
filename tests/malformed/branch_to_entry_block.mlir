func.func @f() {
^bb0:
  "a.br"()[^bb0] : () -> ()
^bb1:
  return
}
