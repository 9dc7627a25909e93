import Foundation
import TransferTopCLI

exit(await TransferTopMain.run(CommandLine.arguments))
