// TransferTopUI
