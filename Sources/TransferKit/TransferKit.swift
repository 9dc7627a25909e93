@_exported import TransferModel
