// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

interface IERC20Minimal {
    function balanceOf(address owner) external view returns (uint256);
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function approve(address spender, uint256 amount) external returns (bool);
}

interface IWrappedNative {
    function deposit() external payable;
    function withdraw(uint256 amount) external;
}

/// Transfers that accept tokens returning nothing (USDT-style) as well as `true`,
/// and revert with the token's own reason when it has one.
library SafeERC20Calls {
    function safeTransfer(address token, address to, uint256 amount) internal {
        _call(token, abi.encodeWithSelector(IERC20Minimal.transfer.selector, to, amount), "transfer failed");
    }

    function safeTransferFrom(address token, address from, address to, uint256 amount) internal {
        _call(token, abi.encodeWithSelector(IERC20Minimal.transferFrom.selector, from, to, amount), "transferFrom failed");
    }

    function sendNative(address to, uint256 amount) internal {
        (bool ok, ) = to.call{value: amount}("");
        require(ok, "native transfer failed");
    }

    function _call(address token, bytes memory data, string memory what) private {
        require(token.code.length > 0, "token has no code");
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok) {
            if (ret.length > 0) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
            revert(what);
        }
        require(ret.length == 0 || abi.decode(ret, (bool)), what);
    }
}
