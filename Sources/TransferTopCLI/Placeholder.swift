// TransferTopCLI
