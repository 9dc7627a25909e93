print("transferbench")
