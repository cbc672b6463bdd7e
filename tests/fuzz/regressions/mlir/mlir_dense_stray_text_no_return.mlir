///rundense<}]>})
func.func @main() {
  %input = stablehlo.constant dense<[[1åflowgowg_grmenei-s t+w
/o/e Stabll sep
/o/  /o/  tthe Stse Stabll sep
/o/  o/
tpeht/  tthe Stse to run anemenl op
/o/   ele-p
/o/m-call op
oup 36854775807.0, 34.0oup 054775807.0, 34.0], [5®0, 6.0, 7.0_p 36854775807.0, 34.0oup 036854775807.0, 7.0, 9.0]]> : tensor<2x4xf2x2xf32>

}
