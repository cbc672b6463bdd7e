sdy.mesh @m = <["x"=2, "y"=4]>
﻿sdy.mesh @m = <["x"=2, "y"=4]>
