func.func @ext(tensor<8xf32>) -> tensor<8xf32>
